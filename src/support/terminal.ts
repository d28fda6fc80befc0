/**
 * Text from manifests, file names and servers, on its way to a terminal: shown, never obeyed
 * (docs/security.md, "A terminal that shows, never obeys"). A terminal acts on C0 controls (ESC
 * starts a sequence that can retitle or clear it, CR and BS write over what a line said, BEL
 * rings), on DEL, and on C1 controls (U+0080–U+009F: U+009B is a CSI of its own). Each is written
 * as a visible escape instead, `\x1b`, `\x9b`, with `\n`, `\r` and `\t` by their short names; a
 * tab is escaped too (it can push text out of its column). Only the newlines of text stacksync
 * itself lays out in lines are kept ({@link showLines}); within a value (a name, a message, a
 * cell) a newline is shown as `\n`, so no value can forge a line of its own. Pure.
 */

/** Every C0 control, DEL and every C1 control. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS_ALL = /[\u0000-\u001f\u007f-\u009f]/g;
/** The same but the newline. */
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const CONTROLS_BUT_NEWLINE_ALL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
/** What JSON.stringify leaves as it is: DEL and the C1 controls (it escapes the C0 ones itself). */
const JSON_RAW_CONTROLS = /[\u007f-\u009f]/;
const JSON_RAW_CONTROLS_ALL = /[\u007f-\u009f]/g;

const SHORT_NAMES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(char: string): string {
  return SHORT_NAMES[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** One value (a name, a file, a server's message) for a terminal: every control character escaped, newlines too. */
export function show(text: string): string {
  return CONTROLS.test(text) ? text.replace(CONTROLS_ALL, escape) : text;
}

/** Text laid out in lines by stacksync: every control character escaped but the newline. */
export function showLines(text: string): string {
  return CONTROLS_BUT_NEWLINE.test(text) ? text.replace(CONTROLS_BUT_NEWLINE_ALL, escape) : text;
}

/**
 * JSON for a terminal: DEL and the C1 controls, which JSON.stringify writes as they are, as
 * `\u009b`. They can only be inside strings (JSON's own characters are ASCII), so the document
 * means the same to a parser.
 */
export function showJson(json: string): string {
  return JSON_RAW_CONTROLS.test(json)
    ? json.replace(JSON_RAW_CONTROLS_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}
