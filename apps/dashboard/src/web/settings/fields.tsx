import { Checkbox, NativeSelect, TextInput } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { formText } from '../filters.js';
import { ErrorText } from '../ui.js';

/** A labelled text field. */
export function Field(props: {
  name: string;
  label: string;
  value?: string | null;
  placeholder?: string;
}) {
  return (
    <TextInput
      name={props.name}
      label={props.label}
      defaultValue={props.value ?? ''}
      placeholder={props.placeholder}
    />
  );
}

/** A text field's name, label and placeholder. */
export type FieldSpec = readonly [name: string, label: string, placeholder: string];

/** Text fields filled from `saved` (a blank field is null: the level below applies). */
export function Fields(props: { specs: readonly FieldSpec[]; saved: object }) {
  const saved = props.saved as Record<string, unknown>;
  return props.specs.map(([name, label, placeholder]) => {
    const value = saved[name];
    return (
      <Field
        key={name}
        name={name}
        label={label}
        value={typeof value === 'string' ? value : null}
        placeholder={placeholder}
      />
    );
  });
}

/** The {@link Fields}' values, each null when blank. */
export function nullables(data: FormData, specs: readonly FieldSpec[]) {
  return Object.fromEntries(specs.map(([name]) => [name, nullable(data, name)]));
}

/** A labelled checkbox. */
export function Check(props: { name: string; label: string; checked: boolean }) {
  return <Checkbox name={props.name} label={props.label} defaultChecked={props.checked} />;
}

/** A yes / no / "not set" choice: not set leaves the level below in force. */
export function Choice(props: {
  name: string;
  label: string;
  value: boolean | null;
  unset: string;
}) {
  const value = props.value === null ? '' : props.value ? 'yes' : 'no';
  return (
    <NativeSelect
      name={props.name}
      label={props.label}
      defaultValue={value}
      data={[
        { value: '', label: props.unset },
        { value: 'yes', label: 'yes' },
        { value: 'no', label: 'no' },
      ]}
    />
  );
}

/** A text field's value, null when blank. */
export function nullable(data: FormData, name: string): string | null {
  const value = formText(data, name).trim();
  return value === '' ? null : value;
}

/** A {@link Choice}'s value. */
export function chosen(data: FormData, name: string): boolean | null {
  const value = formText(data, name);
  return value === '' ? null : value === 'yes';
}

/** A form's status line: what a save said, or its refusal. */
export function useFormStatus() {
  const [status, setStatus] = useState<ReactNode>(null);
  return {
    status: <div role="status">{status}</div>,
    say: (text: string) => setStatus(<p>{text}</p>),
    fail: (error: unknown) => setStatus(<ErrorText error={error} />),
  };
}
