/**
 * Recovers what a truncated JSON body still holds: the body is cut back to the end of the last
 * complete element of its outermost array (or to just after that array's `[`), and the brackets
 * still open are closed. Only elements of the outermost array count, so a record cut half-way
 * through is dropped whole rather than kept with fields missing.
 *
 * Used for `206` answers, whose payload the service trims when the quota runs out mid-response.
 * Returns `undefined` when nothing can be recovered.
 *
 * @example salvageTruncatedJson('{"message":"success","data":[{"a":1},{"b":') // { message: 'success', data: [{ a: 1 }] }
 */
export function salvageTruncatedJson(text: string): unknown {
  const stack: string[] = [];
  let arrays = 0;
  let inString = false;
  let escaped = false;
  let cut = -1;
  let closers = '';

  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === BACKSLASH) escaped = true;
      else if (ch === QUOTE) inString = false;
      continue;
    }
    if (ch === QUOTE) {
      inString = true;
    } else if (ch === OPEN_BRACE) {
      stack.push('}');
    } else if (ch === OPEN_BRACKET) {
      stack.push(']');
      arrays += 1;
      if (arrays === 1) {
        cut = i + 1;
        closers = closing(stack);
      }
    } else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) {
      const closed = stack.pop();
      if (closed === ']') arrays -= 1;
      if (closed === '}' && arrays === 1 && stack[stack.length - 1] === ']') {
        cut = i + 1;
        closers = closing(stack);
      }
    }
  }

  if (cut < 0) return undefined;
  try {
    return JSON.parse(text.slice(0, cut) + closers);
  } catch {
    return undefined;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function closing(stack: readonly string[]): string {
  let out = '';
  for (let i = stack.length - 1; i >= 0; i -= 1) out += stack[i];
  return out;
}
