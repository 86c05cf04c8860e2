import type { Command } from 'commander';
import { LOCATION_REFERENCE_HELP } from '../../locations/location-reference-help.js';
import type { CommandContext } from '../command-context.js';
import type { CertifyOptions, KeygenOptions, VerifyOptions } from '../run-certify.js';

/**
 * `envdata certify …` (a signed completeness certificate of a range), `envdata certify keygen`
 * (its Ed25519 key pair) and `envdata verify FILE` (docs/provenance.md, "Certificates").
 */
export function registerCertifyCommands(program: Command, context: CommandContext): void {
  const certify = program
    .command('certify')
    .description(
      'Write a signed completeness certificate (in-toto Statement in a DSSE envelope, Ed25519) of the rows of one location, dataset and range; `certify keygen` makes the key pair',
    )
    // Checked by the action, not commander: a parent's required options bind `certify keygen` too.
    .option('--location <name|id>', 'the location (required): name, id, id:N or name:N')
    .option('--dataset <dataset>', 'weather or pollen (required)')
    .option('--from <date>', 'first whole UTC hour (required; YYYY-MM-DD[ hh:00:00])')
    .option('--to <date>', 'end of the range, exclusive (required; a whole UTC hour)')
    .option('--out <file>', 'write the certificate there (default: print it)')
    .option(
      '--key <file>',
      'the Ed25519 private key (PEM); else ENVDATA_CERTIFY_KEY (PEM text) or ENVDATA_CERTIFY_KEY_FILE',
    )
    .option(
      '--rows-out <file>',
      'also write the canonical rows, for `verify --rows` without the database',
    )
    .option('--require-complete', 'exit 1 naming the first hour not landed, writing nothing')
    .addHelpText('after', `\nLocations: ${LOCATION_REFERENCE_HELP}.`)
    .action(async (options: CertifyOptions) => {
      const { runCertify } = await import('../run-certify.js');
      await runCertify(context, options, program.version() ?? 'unknown');
    });
  certify
    .command('keygen')
    .description(
      'Write a new Ed25519 key pair for certificates (private key PKCS#8 PEM, mode 0600; public key SPKI PEM)',
    )
    .option('--out-private <file>', 'the private key', 'envdata-certify.key')
    .option('--out-public <file>', 'the public key, for verifiers', 'envdata-certify.pub')
    .action(async (options: KeygenOptions) => {
      const { runKeygen } = await import('../run-certify.js');
      await runKeygen(context, options);
    });
  program
    .command('verify <file>')
    .description(
      "Check a certificate of `envdata certify`: its signature with the public key held, then its rows' digest against the warehouse (or a --rows file, offline); exit 1 naming the signature or the first hour that differs",
    )
    .option('--public-key <file>', 'the public key (PEM); else ENVDATA_CERTIFY_PUBLIC_KEY (a file)')
    .option(
      '--rows <file>',
      'check a canonical rows file (`certify --rows-out`) instead of the warehouse',
    )
    .action(async (file: string, options: VerifyOptions) => {
      const { runVerify } = await import('../run-certify.js');
      await runVerify(context, file, options);
    });
}
