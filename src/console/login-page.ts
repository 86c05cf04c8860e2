import { escapeHtml } from './console-assets.js';

/**
 * The console's sign-in form: the token (ENVDATA_CONSOLE_TOKEN) goes into an HttpOnly,
 * SameSite=Strict cookie, so a browser can read the console and act through it.
 */
export function loginPage(options: { next: string; failed?: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>envdata console — sign in</title>
<link rel="stylesheet" href="/assets/console.css">
</head>
<body class="login">
<main>
<h1>envdata console</h1>
<p>This console needs its token (<code>ENVDATA_CONSOLE_TOKEN</code> of <code>envdata serve</code>).</p>
${options.failed ? '<p class="error" role="alert">That is not the token: try again.</p>' : ''}
<form method="post" action="/login">
<input type="hidden" name="next" value="${escapeHtml(options.next)}">
<label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
