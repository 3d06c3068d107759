-- A delivery is inserted unsettled and settled moments later. With room left on its page, that
-- update is HOT (a heap-only tuple: none of the table's five indexes is touched); on full pages
-- it was not, for nine settles in ten under load. Rows of about 1 kB leave half a page for them.
-- Existing pages keep their layout until they are rewritten; new ones are filled to half.
ALTER TABLE "deliveries" SET (fillfactor = 50);
