-- Hand-written: a person's request to stop a thread's run is a follow-up of kind 'stop'
-- (libs/db/src/repositories/states.ts, FOLLOW_UP_KINDS): it interrupts the run like a person's
-- message and starts nothing after it. No existing row holds it, so the constraint is valid at once.

ALTER TABLE "thread_messages" DROP CONSTRAINT "thread_messages_kind_check";

ALTER TABLE "thread_messages" ADD CONSTRAINT "thread_messages_kind_check"
  CHECK ("kind" IN ('message', 'command', 'stop'));
