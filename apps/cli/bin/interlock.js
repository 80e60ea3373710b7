#!/usr/bin/env node
// The `interlock` command. It lives outside dist/ so that `pnpm install` can link it before
// anything is built: it runs the built CLI (`pnpm build` makes dist/).
const main = new URL('../dist/main.js', import.meta.url);
try {
  await import(main.href);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(main.pathname)) {
    process.stderr.write('interlock is not built yet: run `pnpm build` in the repository first\n');
    process.exit(1);
  }
  throw error;
}
