/**
 * `npm run engine`: the embedded engine alone, like DynamoDB Local (the engine's own command line,
 * `@single-table/engine/cli`: `npm run engine -- --help`), with the product's `ENGINE_DEBUG` read
 * where the product reads its environment (src/boot/config.ts).
 */
import { runEngineCli } from '@single-table/engine/cli';
import { readConfig, silenceSdkNodeVersionNotice } from '../../boot/config';

silenceSdkNodeVersionNotice();
runEngineCli(process.argv.slice(2), { debug: readConfig().engineDebug });
