//! `gloop validate`: physical validation scenes that print measured vs expected and PASS/FAIL.
