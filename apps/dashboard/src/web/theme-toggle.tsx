import { Button, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';

/**
 * Light or dark: the system's choice (prefers-color-scheme) until the person picks one here
 * (kept in localStorage). Transitions are kept: Mantine would otherwise switch them off with an
 * inline `<style>`, which the Content-Security-Policy refuses.
 */
export function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme({ keepTransitions: true });
  const shown = useComputedColorScheme('light');
  const next = shown === 'dark' ? 'light' : 'dark';
  return (
    <Button variant="default" size="compact-sm" onClick={() => setColorScheme(next)}>
      {`${next === 'dark' ? 'Dark' : 'Light'} theme`}
    </Button>
  );
}
