import { useEffect, useState } from 'react';
import { api, ApiError, type AuthStatus, type Me } from './api.js';

/** Whether sign-in is on, and who is signed in (null: nobody, or sign-in is off). */
export interface Session {
  auth: AuthStatus;
  me: Me | null;
}

async function readSession(): Promise<Session> {
  const auth = await api<AuthStatus>('/api/auth');
  if (!auth.signedIn) return { auth, me: null };
  const me = await api<Me>('/api/me').catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  });
  return { auth, me };
}

/** The session, read once when the app starts (a sign-in or sign-out reloads the page). */
export function useSession(): { session: Session | null; error: unknown } {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    readSession().then(setSession, setError);
  }, []);
  return { session, error };
}
