/**
 * The engine's process entry point: `node --import tsx src/main.ts [options]` (`npm start` in this
 * package; the product's `npm run engine` runs its own entry point, src/entry/cli/engine.ts, over
 * the same `runEngineCli`). `ENGINE_DEBUG` set: the engine prints the stack of every internal failure.
 */
import { runEngineCli } from './cli';

runEngineCli(process.argv.slice(2), { debug: Boolean(process.env.ENGINE_DEBUG) });
