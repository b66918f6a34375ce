// Entry of the web console, built by Vite and served at /console.
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from 'preact';
import { App } from './app';
import { queryClient } from './query';
import './styles.css';

render(
  <QueryClientProvider client={queryClient}>
    <App />
  </QueryClientProvider>,
  document.getElementById('app')!,
);
