import '@mantine/core/styles.css';
import './style.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

/**
 * Mantine's own `<style>` elements (its theme as CSS variables, its global classes) are off: the
 * page's Content-Security-Policy admits only its own stylesheets, which carry the defaults
 * (`@mantine/core/styles.css`) and the app's colours (`style.css`).
 */
createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MantineProvider defaultColorScheme="auto" withCssVariables={false} withGlobalClasses={false}>
      <App />
    </MantineProvider>
  </StrictMode>,
);
