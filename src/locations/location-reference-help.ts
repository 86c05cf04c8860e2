/**
 * How references name locations on the command line, for `--help` and messages. A
 * module of its own: `--help` loads it without the lookup (and its packages).
 */
export const LOCATION_REFERENCE_HELP =
  'a location is a name or an id; `id:12` and `name:12` say which. A name is compared as ' +
  'people read it (case, Unicode form and invisible characters aside) and may be the place ' +
  'text the location was registered by. A bare number is an id, refused as ambiguous if ' +
  'another location is named so';
