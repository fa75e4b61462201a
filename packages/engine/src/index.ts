/**
 * The embedded DynamoDB-compatible engine's public entry (README.md beside src/ says what it
 * promises): `startEngine` serves the DynamoDB wire protocol (and the Streams API) on a loopback
 * port; the profiles (also `@single-table/engine/profiles`) name its DynamoDB behaviours. The
 * command line is `@single-table/engine/cli`; the conformance suite's helpers `@single-table/engine/testing`.
 */
export * from './embedded';
export * from './profiles';
