// Lint config: typescript-eslint's recommended type-aware rules over the whole project.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // spectral-functions/carrierConventions.js is generated from src/lint/ (src/build/bundle-spectral.ts).
  { ignores: ['dist/', 'reports/', 'coverage/', 'node_modules/', 'spectral-functions/carrierConventions.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // zod is configured once, in src/core/zod.ts (no JIT): the harness imports it from there.
    files: ['src/**/*.ts'],
    ignores: ['src/core/zod.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'zod',
              allowTypeImports: true,
              message: 'import { z } from src/core/zod.ts: zod configured once, without its JIT',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
