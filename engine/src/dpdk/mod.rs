//! The safe layer over landspeed-sys.
