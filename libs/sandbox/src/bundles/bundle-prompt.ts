import type { BundleCommand } from './bundle-config.js';
import type { ToolBundle } from './bundle-load.js';

/** One command as SWE-agent's `generate_command_docs` writes it (name, docstring, signature, arguments). */
function commandDoc(command: BundleCommand): string {
  const lines = [`${command.name}:`];
  if (command.docstring !== null) lines.push(`  docstring: ${command.docstring.trim()}`);
  if (command.signature !== null) {
    const [first, ...rest] = command.signature.split('\n');
    lines.push(`  signature: ${first ?? ''}`, ...rest.map((line) => `    ${line}`));
  }
  if (command.arguments.length > 0) {
    lines.push('  arguments:');
    for (const argument of command.arguments) {
      const required = argument.required ? 'required' : 'optional';
      lines.push(
        `    - ${argument.name} (${argument.type}) [${required}]: ${argument.description}`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * The system prompt's section for installed bundles: their commands, each with its docstring,
 * signature and arguments as SWE-agent documents them, to be called through the shell tool
 * (`execute`). Commands whose name starts with `_` (the bundles' own helpers, such as `_state`)
 * and `bash` (the shell tool itself) are left out. Empty when no bundle declares a command.
 */
export function bundleCommandsPrompt(bundles: readonly ToolBundle[]): string {
  const commands = bundles
    .flatMap((bundle) => bundle.config.commands)
    .filter((command) => !command.name.startsWith('_') && command.name !== 'bash');
  if (commands.length === 0) return '';
  const multiline = commands.find((command) => command.endName !== null);
  return [
    `Besides your tools, the sandbox has these commands (SWE-agent tool bundles: ${bundles
      .map((b) => b.name)
      .join(', ')}). Run them with the execute tool, one command per call, as you would any ` +
      'shell command:',
    '',
    ...commands.map(commandDoc),
    ...(multiline?.endName
      ? [
          '',
          `A multi-line command takes its text on the lines after it, ended by its end line ` +
            `(e.g. \`${multiline.name} …\`, the lines, then \`${multiline.endName}\`), all in one ` +
            'execute call; the text reaches the command on stdin.',
        ]
      : []),
  ].join('\n');
}
