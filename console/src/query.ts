// The console's data layer: TanStack Query (through preact/compat) caches what each screen reads,
// polls where a screen follows something live, and runs every action as a mutation, so a screen has
// one loading, error and busy state per read or action instead of hand-written ones.
import { QueryClient, useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';

export const queryClient = new QueryClient({
  defaultOptions: {
    // The API's answer is shown as it is: a failed read is shown at once, not retried behind the user.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 2_000 },
    mutations: { retry: false },
  },
});

/**
 * An action (a POST, PUT or DELETE): `isPending` while it runs (its button is disabled), `error` when
 * the API refused it, and the queries under `invalidates` read again once it succeeded.
 */
export function useAction<A, R>(
  fn: (args: A) => Promise<R>,
  opts: { invalidates?: QueryKey[]; onSuccess?: (result: R, args: A) => void } = {},
) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async (result, args) => {
      await Promise.all((opts.invalidates ?? []).map((queryKey) => client.invalidateQueries({ queryKey })));
      opts.onSuccess?.(result, args);
    },
  });
}

/** Runs `fn` once the user confirmed `question` (destructive actions: kill, revoke, delete). */
export function confirmed(question: string, fn: () => void): void {
  if (window.confirm(question)) fn();
}

/** `value` once it has stopped changing for `ms`: typing asks the API once, not once per key. */
export function useSettled<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
