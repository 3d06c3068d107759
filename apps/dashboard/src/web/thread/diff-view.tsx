import { Highlight, type PrismTheme } from 'prism-react-renderer';
import { Fragment } from 'react';
import { languageOf, parseUnifiedDiff, splitPatch, type DiffFile } from './unified-diff.js';

/**
 * No inline colours: the highlighter only names each token (`token keyword`…), and the app's
 * stylesheet colours them for the light and the dark theme.
 */
const CLASSES_ONLY: PrismTheme = { plain: {}, styles: [] };

/**
 * Lines highlighted at most. A patch of a generated file can hold 100,000 lines: highlighted
 * token by token that is a page of 600 MB that answers after a minute; the rest is one text node.
 */
const HIGHLIGHTED_LINES = 2_000;

const MARK = { add: '+', del: '-', ctx: ' ', hunk: '', meta: '' } as const;

/**
 * One file of a diff, highlighted by its extension. The file's code lines (without their
 * markers) are tokenized together so that a construct spanning lines reads right; the
 * highlighter hands back tokens, rendered as text, so diff text is never parsed as HTML.
 */
function FileDiff({ file }: { file: DiffFile }) {
  const code = file.lines.map((line) =>
    line.kind === 'hunk' || line.kind === 'meta' ? '' : line.text,
  );
  return (
    <Highlight theme={CLASSES_ONLY} language={languageOf(file.path)} code={code.join('\n')}>
      {({ tokens, getTokenProps }) => (
        <>
          {file.lines.map((line, index) => (
            <span key={index} className={`diff-line diff-${line.kind}`}>
              <span className="diff-mark">{MARK[line.kind]}</span>
              {line.kind === 'hunk' || line.kind === 'meta'
                ? line.text
                : (tokens[index] ?? [])
                    .filter((token) => !token.empty)
                    .map((token, key) => <span key={key} {...getTokenProps({ token })} />)}
              {'\n'}
            </span>
          ))}
        </>
      )}
    </Highlight>
  );
}

/**
 * A unified diff, one line per row: additions and removals coloured and kept marked with their
 * `+`/`-` (for readers and for copying), each file's code highlighted; past
 * {@link HIGHLIGHTED_LINES} lines the diff goes on as plain text, and a note says so.
 */
export function DiffView({ patch }: { patch: string }) {
  const { head, rest, restLines } = splitPatch(patch, HIGHLIGHTED_LINES);
  const files = parseUnifiedDiff(head);
  const count = (n: number) => n.toLocaleString('en');
  return (
    <>
      <pre className="diff" aria-label="diff" tabIndex={0}>
        {files.map((file, index) => (
          <Fragment key={index}>
            <FileDiff file={file} />
          </Fragment>
        ))}
        {rest}
      </pre>
      {rest && (
        <p className="note">
          {`The last ${count(restLines)} lines of this diff are shown unhighlighted (only its first ${count(HIGHLIGHTED_LINES)} are highlighted).`}
        </p>
      )}
    </>
  );
}
