-- Issue 29: the impact of a posting (migration 014) in float8 arithmetic. Its literals were numeric, so each of
-- the ~85 postings a chunk adds to the impact lists went through software decimal arithmetic: ~0.1 ms of CPU per
-- chunk in embedded PGlite, a quarter of the term-statistics upkeep. The formula is unchanged; values agree with
-- the numeric version once rounded to real (at most one unit in the last place), and the lists and floors stay
-- consistent because every bound is read from stored impacts.
CREATE OR REPLACE FUNCTION atrium_bm25_impact(tf integer, len integer, avgdl double precision) RETURNS real
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS 'SELECT (2.2::float8 * tf / (tf + 1.2::float8 * (0.25::float8 + 0.75::float8 * len / greatest(avgdl, 1::float8))))::real';
