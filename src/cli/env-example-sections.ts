import type { EnvironmentVariable } from '../config/environment-variables.js';
import { LOCAL_ENVIRONMENT_VARIABLES } from './local-environment.js';
import { SIMULATOR_ENVIRONMENT_VARIABLES } from './simulator-environment-variables.js';

/** Sections of `.env.example` and `--help` beyond the core variables. */
export const ENV_EXAMPLE_SECTIONS: readonly {
  title: string;
  variables: readonly EnvironmentVariable[];
}[] = [
  { title: 'simulator (envdata simulate)', variables: SIMULATOR_ENVIRONMENT_VARIABLES },
  {
    title: 'local PostgreSQL (envdata local, npm run demo)',
    variables: LOCAL_ENVIRONMENT_VARIABLES,
  },
];
