/** One problem or warning about a project file, with the key it is about. */
export interface ConfigIssue {
  path: string;
  message: string;
}
