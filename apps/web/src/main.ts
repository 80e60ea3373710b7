#!/usr/bin/env node
/** The `interlock-web` bin (placeholder until the server lands). */
console.log('interlock-web: not built yet');
