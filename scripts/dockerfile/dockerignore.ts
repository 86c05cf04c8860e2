/**
 * `.dockerignore` as Docker reads it, for the patterns envdata uses: one path or glob per line
 * (`*`, `?`, `**`), relative to the build context, a leading `/` ignored; a pattern that names a
 * directory leaves out everything under it. Exceptions (`!pattern`) are refused rather than half
 * understood.
 */
export function readDockerignore(text: string): (relativePath: string) => boolean {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      if (line.startsWith('!')) {
        throw new Error(
          `.dockerignore: exceptions ("${line}") are not handled by scripts/dockerfile/`,
        );
      }
      return globToRegExp(line.replace(/^\/+/, '').replace(/\/+$/, ''));
    });
  return (relativePath) => patterns.some((pattern) => pattern.test(relativePath));
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? '';
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is any number of directories, none included; a bare `**` anything.
      const slash = glob[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // The path itself, or anything under it.
  return new RegExp(`^${source}(?:/.*)?$`);
}
