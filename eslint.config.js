// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { wallConfigs } from './eslint.walls.js';

/** Syntax no file may use. */
const RESTRICTED_SYNTAX = [
  {
    selector: 'TSEnumDeclaration',
    message: 'Use a union or an `as const` object, not enum.',
  },
  {
    selector:
      "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name='only']",
    message: '.only hides the rest of the suite.',
  },
  {
    selector:
      "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name='skip']",
    message: 'A skipped test proves nothing.',
  },
  {
    // The one skip allowed: a file that needs a Redis, on a machine without one outside CI (the
    // run's last line then says the Redis leg did not run; under CI=true a missing Redis fails).
    selector:
      "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name='skipIf']:not([arguments.0.callee.name='withoutRedis'])",
    message: 'A skipped test proves nothing (only `skipIf(withoutRedis())` is allowed).',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', 'dist/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': ['error', ...RESTRICTED_SYNTAX],
    },
  },
  // The walls between src/ folders (eslint.walls.js); test/architecture also proves no cycle.
  ...wallConfigs(),
  {
    // The queue's contract (jobs/): what travels on the queue, read by the producers and the
    // workers of src/, importing none of them: zod, BullMQ's types, the vocabulary (src/types.ts)
    // and its own files only (test/architecture/jobs-wall.test.ts).
    files: ['jobs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!zod$|bullmq$|\\./[\\w.-]+\\.js$|\\.\\./src/types\\.js$)',
              message:
                'jobs/ imports only zod, bullmq (types), src/types.ts and itself (eslint.config.js)',
            },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'bullmq',
              allowTypeImports: true,
              message: 'jobs/ imports only the types of bullmq: the worker throws its errors.',
            },
          ],
        },
      ],
    },
  },
  {
    // Only src/config and the CLI boundary read the environment; everything else gets a Config.
    files: ['src/**/*.ts'],
    ignores: ['src/config/**', 'src/cli/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings through src/config.' },
        { object: 'process', property: 'argv', message: "Arguments are the CLI's (src/cli)." },
      ],
    },
  },
  {
    // Commands are thin: parse, call a use case, print. No SQL in the CLI.
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'kysely',
              allowTypeImports: true,
              message: 'Queries belong in a use case (src/ledger, src/runs, src/locations, …).',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|with|transaction)$/]',
          message: 'Queries belong in a use case (src/ledger, src/runs, src/locations, …).',
        },
      ],
    },
  },
  {
    // The operations console's page script runs in the browser (src/console/public/).
    files: ['src/console/public/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'fetch',
          'Node',
          'URLSearchParams',
          'Intl',
          'queueMicrotask',
          'setInterval',
          'clearInterval',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
