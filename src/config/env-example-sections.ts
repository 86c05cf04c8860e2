import type { EnvironmentVariable } from './environment-variables.js';

/** Sections of `.env.example` beyond the core variables (the simulator's, for instance). */
export const ENV_EXAMPLE_SECTIONS: readonly {
  title: string;
  variables: readonly EnvironmentVariable[];
}[] = [];
