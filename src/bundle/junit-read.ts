/**
 * Reads the test cases of a junit.xml, to hold it against report.json (verify-bundle). Not a
 * general XML parser: a strict tokenizer for the subset a JUnit file uses (XML 1.0 elements,
 * attributes, text, CDATA, comments, processing instructions). A DOCTYPE is refused outright, so no
 * entity is ever defined or expanded (no XXE, no "billion laughs"), and nothing is fetched. A file
 * that is not well-formed within that subset is an error with its offset, never a guess.
 */

export type JUnitOutcome = 'failure' | 'error' | 'skipped';

export interface JUnitCase {
  classname: string;
  name: string;
  /** The outcome elements the case holds, in order (a well-formed case has at most one). */
  outcomes: JUnitOutcome[];
}

export interface JUnitSuite {
  name: string;
  /** The suite's own counts, as its attributes state them (undefined when absent). */
  declared: {
    tests: number | undefined;
    failures: number | undefined;
    errors: number | undefined;
    skipped: number | undefined;
  };
  cases: JUnitCase[];
}

export class JUnitReadError extends Error {}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** Deeper than any JUnit file nests: a bound on the element stack of a hostile file. */
const MAX_DEPTH = 64;

function decodeEntities(text: string, at: number): string {
  return text.replace(/&([^;&\s]{0,10});?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new JUnitReadError(`an unterminated entity reference near offset ${at}`);
    const named = PREDEFINED[ref];
    if (named !== undefined) return named;
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(ref);
    const code = numeric ? parseInt(numeric[1] ?? numeric[2] ?? '', numeric[1] !== undefined ? 16 : 10) : NaN;
    if (!Number.isFinite(code) || code > 0x10ffff)
      throw new JUnitReadError(`the entity &${ref}; near offset ${at} is not one XML predefines`);
    return String.fromCodePoint(code);
  });
}

interface Tag {
  name: string;
  attributes: Map<string, string>;
  selfClosing: boolean;
}

/** Parses the start tag at `start` (just after `<`); returns it and the offset after `>`. */
function startTag(xml: string, start: number): { tag: Tag; end: number } {
  NAME.lastIndex = start;
  const m = NAME.exec(xml);
  if (!m) throw new JUnitReadError(`a malformed tag at offset ${start - 1}`);
  const attributes = new Map<string, string>();
  let i = NAME.lastIndex;
  for (;;) {
    const spaceStart = i;
    while (/\s/.test(xml[i] ?? '')) i += 1;
    const ch = xml[i];
    if (ch === '>') return { tag: { name: m[0], attributes, selfClosing: false }, end: i + 1 };
    if (ch === '/' && xml[i + 1] === '>') return { tag: { name: m[0], attributes, selfClosing: true }, end: i + 2 };
    if (ch === undefined) throw new JUnitReadError(`the file ends inside the tag <${m[0]}`);
    if (i === spaceStart) throw new JUnitReadError(`a malformed attribute in <${m[0]}> at offset ${i}`);
    NAME.lastIndex = i;
    const attr = NAME.exec(xml);
    if (!attr) throw new JUnitReadError(`a malformed attribute in <${m[0]}> at offset ${i}`);
    i = NAME.lastIndex;
    while (/\s/.test(xml[i] ?? '')) i += 1;
    if (xml[i] !== '=') throw new JUnitReadError(`attribute ${attr[0]} of <${m[0]}> has no value (offset ${i})`);
    i += 1;
    while (/\s/.test(xml[i] ?? '')) i += 1;
    const quote = xml[i];
    if (quote !== '"' && quote !== "'")
      throw new JUnitReadError(`attribute ${attr[0]} of <${m[0]}> is not quoted (offset ${i})`);
    const close = xml.indexOf(quote, i + 1);
    if (close < 0) throw new JUnitReadError(`attribute ${attr[0]} of <${m[0]}> is not closed`);
    const raw = xml.slice(i + 1, close);
    if (raw.includes('<')) throw new JUnitReadError(`attribute ${attr[0]} of <${m[0]}> contains "<" (offset ${i})`);
    if (attributes.has(attr[0])) throw new JUnitReadError(`attribute ${attr[0]} appears twice in <${m[0]}>`);
    attributes.set(attr[0], decodeEntities(raw, i));
    i = close + 1;
  }
}

function skipPast(xml: string, from: number, terminator: string, what: string): number {
  const end = xml.indexOf(terminator, from);
  if (end < 0) throw new JUnitReadError(`${what} at offset ${from} is never closed`);
  return end + terminator.length;
}

function count(value: string | undefined): number | undefined {
  return value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/** The suites and their test cases; throws JUnitReadError on anything not well-formed. */
export function readJUnit(xml: string): JUnitSuite[] {
  const suites: JUnitSuite[] = [];
  const stack: string[] = [];
  let suite: JUnitSuite | undefined;
  let testCase: JUnitCase | undefined;
  let sawRoot = false;
  let i = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    if (lt < 0) {
      if (xml.slice(i).trim() !== '' && stack.length === 0) throw new JUnitReadError('text after the root element');
      break;
    }
    if (stack.length === 0 && xml.slice(i, lt).trim() !== '')
      throw new JUnitReadError(`text outside the root element at offset ${i}`);
    if (xml.startsWith('<?', lt)) i = skipPast(xml, lt + 2, '?>', 'a processing instruction');
    else if (xml.startsWith('<!--', lt)) i = skipPast(xml, lt + 4, '-->', 'a comment');
    else if (xml.startsWith('<![CDATA[', lt)) {
      if (stack.length === 0) throw new JUnitReadError(`CDATA outside the root element at offset ${lt}`);
      i = skipPast(xml, lt + 9, ']]>', 'a CDATA section');
    } else if (xml.startsWith('<!', lt))
      throw new JUnitReadError(
        `a DOCTYPE or other declaration at offset ${lt}: refused (a JUnit file needs none, and entities are not expanded)`,
      );
    else if (xml[lt + 1] === '/') {
      NAME.lastIndex = lt + 2;
      const m = NAME.exec(xml);
      const name = m?.[0];
      const gt = m ? NAME.lastIndex : -1;
      if (name === undefined || !/^\s*>/.test(xml.slice(gt, gt + 64)))
        throw new JUnitReadError(`a malformed end tag at offset ${lt}`);
      if (stack.pop() !== name) throw new JUnitReadError(`</${name}> at offset ${lt} does not close the open element`);
      if (name === 'testcase') testCase = undefined;
      if (name === 'testsuite') suite = undefined;
      i = xml.indexOf('>', gt) + 1;
    } else {
      if (stack.length === 0 && sawRoot) throw new JUnitReadError(`a second root element at offset ${lt}`);
      const { tag, end } = startTag(xml, lt + 1);
      sawRoot = true;
      const parent = stack[stack.length - 1];
      if (tag.name === 'testsuite') {
        if (suite !== undefined) throw new JUnitReadError(`a <testsuite> inside another at offset ${lt}`);
        const a = tag.attributes;
        suite = {
          name: a.get('name') ?? '',
          declared: {
            tests: count(a.get('tests')),
            failures: count(a.get('failures')),
            errors: count(a.get('errors')),
            skipped: count(a.get('skipped')),
          },
          cases: [],
        };
        suites.push(suite);
      } else if (tag.name === 'testcase') {
        if (suite === undefined || parent !== 'testsuite')
          throw new JUnitReadError(`a <testcase> outside a <testsuite> at offset ${lt}`);
        testCase = {
          classname: tag.attributes.get('classname') ?? '',
          name: tag.attributes.get('name') ?? '',
          outcomes: [],
        };
        suite.cases.push(testCase);
      } else if (
        (tag.name === 'failure' || tag.name === 'error' || tag.name === 'skipped') &&
        parent === 'testcase' &&
        testCase !== undefined
      ) {
        testCase.outcomes.push(tag.name);
      }
      if (!tag.selfClosing) {
        if (stack.length >= MAX_DEPTH) throw new JUnitReadError(`elements nested deeper than ${MAX_DEPTH}`);
        stack.push(tag.name);
      } else if (tag.name === 'testcase') testCase = undefined;
      else if (tag.name === 'testsuite') suite = undefined;
      i = end;
    }
  }
  if (stack.length > 0) throw new JUnitReadError(`the file ends inside <${stack[stack.length - 1] ?? ''}>`);
  if (!sawRoot) throw new JUnitReadError('no root element');
  return suites;
}
