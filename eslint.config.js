// ESLint (flat config): typescript-eslint's recommended rules without type information (fast),
// plus rules that catch real defects, and the size rule of the codebase: no file over 400 lines.
// Formatting is Prettier's (`npm run format`); no stylistic rule here fights it.
// The import direction between src/ folders, and between the workspace packages, is dependency-cruiser's (.dependency-cruiser.cjs).
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Generated (GraphQL Code Generator): not held to the size rule or any other.
  globalIgnores(['coverage/', '.data/', '.auth/', '.scratch/', 'dist/', 'packages/bench/.build/', 'src/resolvers/types.generated.ts']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A file stays under 400 lines, blank lines and comments included.
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      // Real defects, not style.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'array-callback-return': 'error',
      'no-self-compare': 'error',
      'no-unreachable-loop': 'error',
      'no-constructor-return': 'error',
      'no-throw-literal': 'error',
      'no-return-assign': 'error',
      'no-sequences': 'error',
      'no-useless-concat': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Typings of dynalite, an untyped JavaScript library: `any` is what it hands out.
    files: ['packages/engine/src/dynalite.d.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests drive untyped wire shapes (JSON bodies, SDK internals): `any` is fine there.
    files: ['test/**/*.ts', 'packages/engine/test/**/*.ts', 'packages/bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
