// Lint for src/ and test/: `npm run lint` (ESLint, then Prettier's check) runs in CI before the
// tests, and any finding fails it. Pure JavaScript tools, so they install from any npm mirror.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'runtimes/', 'src/native/build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a value kept for its position (a destructured field left out, a callback's first argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests read arbitrary JSON answers of the API: `any` is the honest type there.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
