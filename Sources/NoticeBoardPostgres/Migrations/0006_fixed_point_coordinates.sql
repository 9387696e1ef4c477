-- Coordinates and headings are kept at 1e-7° (about 1 cm), as the contract allows: new posts
-- are rounded before they are stored, and this brings older rows onto the same grid, so the
-- in-memory index can hold them as four-byte integers that stand for exactly these doubles.
-- A heading that rounds up to 360 is 0.
UPDATE posts
   SET lat = round(lat::numeric, 7)::double precision,
       lon = round(lon::numeric, 7)::double precision,
       heading = CASE WHEN round(heading::numeric, 7) >= 360 THEN 0
                      ELSE round(heading::numeric, 7)::double precision END
 WHERE lat <> round(lat::numeric, 7)::double precision
    OR lon <> round(lon::numeric, 7)::double precision
    OR heading <> round(heading::numeric, 7)::double precision;
