import { Button, NativeSelect, TextInput } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { go } from './route.js';

/** A text field of a submitted form ('' when absent). */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}

/**
 * A filter form: submitting it puts its fields in the URL (`#/<page>?…`), so a filtered list can
 * be shared; the page reads them back from there.
 */
export function FilterForm(props: {
  page: string;
  label: string;
  names: readonly string[];
  button?: string;
  children: ReactNode;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    go(props.page, Object.fromEntries(props.names.map((name) => [name, formText(data, name)])));
  };
  return (
    <form className="filters" aria-label={props.label} onSubmit={submit}>
      {props.children}
      <Button type="submit">{props.button ?? 'Filter'}</Button>
    </form>
  );
}

/** A labelled text field of a filter form, filled from the URL. */
export function QueryText(props: {
  query: URLSearchParams;
  name: string;
  label: string;
  placeholder?: string;
  type?: string;
}) {
  return (
    <TextInput
      name={props.name}
      label={props.label}
      type={props.type}
      placeholder={props.placeholder}
      defaultValue={props.query.get(props.name) ?? ''}
    />
  );
}

/** A labelled choice of a filter form, filled from the URL ('' reads "any"). */
export function QuerySelect(props: {
  query: URLSearchParams;
  name: string;
  label: string;
  options: readonly string[];
  fallback?: string;
}) {
  return (
    <NativeSelect
      name={props.name}
      label={props.label}
      defaultValue={props.query.get(props.name) ?? props.fallback ?? ''}
      data={props.options.map((option) => ({ value: option, label: option || 'any' }))}
    />
  );
}
