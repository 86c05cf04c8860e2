import { z } from 'zod';

/**
 * Decimal places a price or budget may have: amounts are kept as whole nano-units (10⁻⁹ of the
 * currency) in a `bigint`, so sums and products are exact (never `0.30000000000000004`).
 */
export const MONEY_DECIMALS = 9;
const SCALE = 10n ** BigInt(MONEY_DECIMALS);

/** An exact amount of one currency: `nanos` / 10⁹ units of the ISO 4217 `currency`. */
export interface Money {
  readonly nanos: bigint;
  /** ISO 4217 code, upper case: `EUR`, `USD`. */
  readonly currency: string;
}

/** ENVDATA_BUDGET: at most `amount` spent per calendar `window` of the quota's calendar. */
export interface Budget {
  readonly amount: Money;
  readonly window: 'month';
}

let currencies: ReadonlySet<string> | undefined;

/** Whether `code` is an ISO 4217 currency this runtime knows (`Intl.supportedValuesOf`). */
export function isCurrencyCode(code: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
}

/** `0.0004` → 400000 nano-units; `undefined` unless a plain non-negative decimal of ≤ 9 places. */
export function parseDecimal(text: string): bigint | undefined {
  const match = /^(\d{1,15})(?:\.(\d{1,9}))?$/.exec(text);
  if (!match) return undefined;
  const fraction = (match[2] ?? '').padEnd(MONEY_DECIMALS, '0');
  return BigInt(match[1]!) * SCALE + BigInt(fraction);
}

/** The exact decimal of `nanos`, trailing zeros dropped: 400000n → `0.0004`, 3×10¹¹ → `300`. */
export function decimalString(nanos: bigint): string {
  const sign = nanos < 0n ? '-' : '';
  const abs = nanos < 0n ? -nanos : nanos;
  const whole = abs / SCALE;
  const fraction = (abs % SCALE).toString().padStart(MONEY_DECIMALS, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** `calls` × `price`, exact. */
export function costOf(calls: number, price: Money): Money {
  return { nanos: BigInt(calls) * price.nanos, currency: price.currency };
}

/**
 * `€0.0012`, `€300.00`: the exact amount in the currency's style, with at least the currency's
 * usual decimals and as many more as the amount has (a price per call is often below a cent).
 */
export function formatMoney(money: Money, locale = 'en-US'): string {
  const exact = decimalString(money.nanos);
  const places = exact.split('.')[1]?.length ?? 0;
  const usual =
    new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: money.currency,
    }).resolvedOptions().minimumFractionDigits ?? 2;
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: money.currency,
    minimumFractionDigits: usual,
    maximumFractionDigits: Math.max(usual, places),
  });
  // Intl formats a decimal string exactly (NumberFormat v3); its types still say number.
  return format.format(exact as unknown as number);
}

const AMOUNT = /^\s*(-?[\d.]+)\s*([A-Za-z]{3})\s*$/;
const CURRENCY_HELP =
  'an ISO 4217 currency code such as EUR, USD or GBP (`Intl.supportedValuesOf("currency")`)';

/** `0.0004 EUR` → exact Money, or the problem in the operator's words. */
export function parseMoney(text: string, what: string, example: string): Money | string {
  const match = AMOUNT.exec(text);
  if (!match) return `must be an amount and a currency such as ${example}`;
  const [, amount = '', code = ''] = match;
  const currency = code.toUpperCase();
  if (amount.startsWith('-'))
    return `must not be negative: a ${what} of 0 or more, such as ${example}`;
  const nanos = parseDecimal(amount);
  if (nanos === undefined) {
    return `"${amount}" is not an amount: a decimal number of at most ${MONEY_DECIMALS} decimal places, such as ${example}`;
  }
  if (!isCurrencyCode(currency)) return `"${code}" is not a currency: must be ${CURRENCY_HELP}`;
  return { nanos, currency };
}

/** ENVDATA_PRICE_PER_CALL: `0.0004 EUR`, or `off` (no price: no cost is shown). */
export const priceSchema = z.string().transform((text, ctx): Money | undefined => {
  if (/^\s*(off|none)?\s*$/i.test(text)) return undefined;
  const parsed = parseMoney(text, 'price', '0.0004 EUR');
  if (typeof parsed !== 'string') return parsed;
  ctx.addIssue({ code: 'custom', message: `${parsed} (the price of one call), or off` });
  return z.NEVER;
});

/** ENVDATA_BUDGET: `300 EUR/month`, or `off`. Only a calendar month: see the variable's text. */
export const budgetSchema = z.string().transform((text, ctx): Budget | undefined => {
  if (/^\s*(off|none)?\s*$/i.test(text)) return undefined;
  const match = /^(.*?)\s*\/\s*([a-z]+)\s*$/i.exec(text);
  const allowed = 'an amount, a currency and the window month, such as 300 EUR/month, or off';
  if (!match) {
    ctx.addIssue({ code: 'custom', message: `must be ${allowed}` });
    return z.NEVER;
  }
  const window = match[2]!.toLowerCase();
  if (!['month', 'monthly', 'mo'].includes(window)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${match[2]}" is not a budget window: the window allowed is month (the quota's calendar month), such as 300 EUR/month`,
    });
    return z.NEVER;
  }
  const amount = parseMoney(match[1]!, 'budget', '300 EUR/month');
  // A budget of 0 spends nothing and a negative one means nothing: both get the same answer.
  if (/^\s*-/.test(match[1]!) || (typeof amount !== 'string' && amount.nanos === 0n)) {
    ctx.addIssue({ code: 'custom', message: `must be above 0, such as 300 EUR/month, or off` });
    return z.NEVER;
  }
  if (typeof amount === 'string') {
    ctx.addIssue({ code: 'custom', message: `${amount}, or off` });
    return z.NEVER;
  }
  return { amount, window: 'month' };
});

/** Calls a budget pays for at `price`: floor(budget / price); `undefined` when the price is 0. */
export function callsOfBudget(budget: Budget, price: Money): number | undefined {
  if (price.nanos === 0n) return undefined;
  const calls = budget.amount.nanos / price.nanos;
  return calls > 2_000_000_000n ? 2_000_000_000 : Number(calls);
}
