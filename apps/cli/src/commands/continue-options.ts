/** The parseArgs options of the commands that continue a stored thread (respond, resume). */
export const CONTINUE_OPTIONS = {
  store: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  mode: { type: 'string' },
  workspace: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
