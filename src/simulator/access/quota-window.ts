/** The calendar window arithmetic lives in `src/windows/` so envdata's own quota counts the same days. */
export { quotaWindow, type QuotaWindow } from '../../windows/quota-window.js';
