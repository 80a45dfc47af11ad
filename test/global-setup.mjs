// Jest global setup: the e2e specs that start `node dist/main.js` need a current build. Building
// here, once, keeps parallel spec files from running the compiler at the same time.
export { buildIfNeeded as default } from '../scripts/build-if-needed.mjs';
