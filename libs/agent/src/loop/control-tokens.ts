/** Markers a tool prints to steer the loop (SWE-agent's tool protocol). */
export const CONTROL_TOKENS = {
  submission: '<<SWE_AGENT_SUBMISSION>>',
  retryWithOutput: '###SWE-AGENT-RETRY-WITH-OUTPUT###',
  retryWithoutOutput: '###SWE-AGENT-RETRY-WITHOUT-OUTPUT###',
  forfeit: '###SWE-AGENT-EXIT-FORFEIT###',
} as const;

/**
 * What a command's output asks of the loop:
 * - `submit`: the submission sentinel was printed; read the patch and conclude `submitted`;
 * - `retry_with_output`: requery the model with the (token-free) output, not counted as a failure;
 * - `retry_without_output`: requery with the same history, not counted;
 * - `forfeit`: end the run with `exit_forfeit`;
 * - `none`: an ordinary observation.
 */
export type ControlSignal =
  'submit' | 'retry_with_output' | 'retry_without_output' | 'forfeit' | 'none';

/** The signal found in `output`, and the output with the retry tokens removed. */
export interface DetectedSignal {
  signal: ControlSignal;
  output: string;
}

/** Looks for the control tokens in a command's output, retry tokens first (as SWE-agent does). */
export function detectControlSignal(output: string): DetectedSignal {
  if (output.includes(CONTROL_TOKENS.retryWithOutput)) {
    return {
      signal: 'retry_with_output',
      output: output.replaceAll(CONTROL_TOKENS.retryWithOutput, ''),
    };
  }
  if (output.includes(CONTROL_TOKENS.retryWithoutOutput)) {
    return {
      signal: 'retry_without_output',
      output: output.replaceAll(CONTROL_TOKENS.retryWithoutOutput, ''),
    };
  }
  if (output.includes(CONTROL_TOKENS.forfeit)) return { signal: 'forfeit', output };
  if (output.includes(CONTROL_TOKENS.submission)) return { signal: 'submit', output };
  return { signal: 'none', output };
}
