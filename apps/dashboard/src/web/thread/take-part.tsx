import { Button, Radio, Textarea } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { api } from '../api.js';
import { formText } from '../filters.js';
import { ErrorText } from '../ui.js';

/** What an action's status line says: nothing yet, a line of progress, or the refusal. */
function useStatus() {
  const [status, setStatus] = useState<ReactNode>(null);
  return {
    status: (
      <p role="status" className="action-status">
        {status}
      </p>
    ),
    say: (text: string) => setStatus(text),
    fail: (error: unknown) => setStatus(<ErrorText error={error} />),
  };
}

/**
 * Stops the thread's work: its waiting run is cancelled and its active run interrupted at its
 * last checkpoint, with no next run (dispatch says "stopped" once in the thread's channel).
 */
export function StopButton({ threadId }: { threadId: string }) {
  const { status, say, fail } = useStatus();
  const [busy, setBusy] = useState(false);
  const stop = () => {
    setBusy(true);
    say('Stopping…');
    api<{ requestId: string }>(`/api/threads/${threadId}/stop`, { method: 'POST', body: {} })
      .then(() => say('Stop requested: the run ends at its last checkpoint.'), fail)
      .finally(() => setBusy(false));
  };
  return (
    <div className="stop-control">
      <Button color="red.9" className="stop" disabled={busy} onClick={stop}>
        Stop the run
      </Button>
      {status}
    </div>
  );
}

/** Follow-up box: a message for the agent, or a command run in the sandbox between its steps. */
export function ActionForm({ threadId }: { threadId: string }) {
  const { status, say, fail } = useStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const body = { kind: formText(data, 'kind') || 'message', text: formText(data, 'text') };
    say('Sending…');
    api<{ triggerId: string }>(`/api/threads/${threadId}/actions`, { method: 'POST', body }).then(
      () => {
        form.reset();
        say('Sent: it reaches the agent before its next step.');
      },
      fail,
    );
  };
  return (
    <form className="action" aria-label="take part" onSubmit={submit}>
      <Textarea name="text" label="Message or command" rows={3} required autosize={false} />
      <Radio.Group name="kind" label="Send as" defaultValue="message">
        <Radio value="message" label="a follow-up message" />
        <Radio value="command" label="a command in the sandbox" />
      </Radio.Group>
      <Button type="submit">Send</Button>
      {status}
    </form>
  );
}
