import { Html, escapeHtml, html } from './html-escape.js';

/**
 * The start of every page the harness writes (report.html, matrix.html), up to `<body>`: one
 * place for the Content-Security-Policy that lets a page load nothing and run no script, whatever
 * text from a target got into it.
 */
export function pageHead(options: { title: string; style: string; generator?: string }): Html {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
${options.generator !== undefined ? html`<meta name="generator" content="${options.generator}">\n` : ''}<title>${new Html(escapeHtml(options.title, false))}</title>
<style>${new Html(options.style)}</style>
</head>`;
}
