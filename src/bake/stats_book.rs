//! Joins the two halves of a frame's stats line: the solver's (time, particles, substeps),
//! known when the particle file is written, and the mesher's (triangles), known a frame or
//! so later on the post-processing thread. Whichever half arrives second completes the line,
//! which then goes to the caller's `on_stats` and into `status.json`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::cache::FrameLine;

/// Called with every completed stats line, from the solver or the mesher thread.
pub type StatsCallback = Arc<dyn Fn(&FrameLine) + Send + Sync>;

pub(super) struct StatsBook {
    inner: Mutex<Inner>,
    /// False for a particles-only bake: the solver's half is the whole line.
    meshing: bool,
    on_stats: Option<StatsCallback>,
}

#[derive(Default)]
struct Inner {
    solved: BTreeMap<i32, FrameLine>,
    meshed: BTreeMap<i32, usize>,
    latest: Option<FrameLine>,
}

impl StatsBook {
    pub fn new(meshing: bool, on_stats: Option<StatsCallback>) -> Arc<StatsBook> {
        Arc::new(StatsBook {
            inner: Mutex::new(Inner::default()),
            meshing,
            on_stats,
        })
    }

    /// The solver's half (its `triangles` is ignored).
    pub fn solved(&self, line: FrameLine) {
        let frame = line.frame;
        let complete = {
            let mut inner = self.lock();
            if !self.meshing {
                Some(FrameLine {
                    triangles: None,
                    ..line
                })
            } else {
                inner.solved.insert(frame, line);
                inner.take(frame)
            }
        };
        self.publish(complete);
    }

    /// The mesher's half: `frame`'s surface has `triangles` triangles.
    pub fn meshed(&self, frame: i32, triangles: usize) {
        let complete = {
            let mut inner = self.lock();
            inner.meshed.insert(frame, triangles);
            inner.take(frame)
        };
        self.publish(complete);
    }

    /// The latest completed line.
    pub fn latest(&self) -> Option<FrameLine> {
        self.lock().latest.clone()
    }

    fn publish(&self, complete: Option<FrameLine>) {
        let Some(line) = complete else { return };
        {
            let mut inner = self.lock();
            // Lines complete in frame order (one post-processing thread), but keep the
            // highest frame should that ever change.
            if inner.latest.as_ref().is_none_or(|l| l.frame <= line.frame) {
                inner.latest = Some(line.clone());
            }
        }
        if let Some(on_stats) = &self.on_stats {
            on_stats(&line);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panicking callback must not make every later frame panic too.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    fn take(&mut self, frame: i32) -> Option<FrameLine> {
        if !(self.solved.contains_key(&frame) && self.meshed.contains_key(&frame)) {
            return None;
        }
        let triangles = self.meshed.remove(&frame);
        let line = self.solved.remove(&frame)?;
        Some(FrameLine { triangles, ..line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(frame: i32) -> FrameLine {
        FrameLine {
            frame,
            seconds: 0.5,
            liquid_particles: 10,
            object_particles: 0,
            substeps: Some(4),
            substeps_set_by: None,
            triangles: None,
        }
    }

    #[test]
    fn a_line_completes_when_both_halves_are_in_whatever_their_order() {
        let printed = Arc::new(Mutex::new(Vec::new()));
        let sink = printed.clone();
        let book = StatsBook::new(
            true,
            Some(Arc::new(move |l: &FrameLine| {
                sink.lock().unwrap().push(l.to_string())
            })),
        );
        book.solved(line(1));
        assert!(book.latest().is_none());
        book.meshed(1, 100);
        book.meshed(2, 200);
        book.solved(line(2));
        assert_eq!(book.latest().unwrap().triangles, Some(200));
        assert_eq!(printed.lock().unwrap().len(), 2);
        assert!(printed.lock().unwrap()[0].ends_with("100 triangles"));
    }

    #[test]
    fn without_meshing_the_solver_half_is_the_line() {
        let book = StatsBook::new(false, None);
        book.solved(line(3));
        assert_eq!(book.latest().unwrap().frame, 3);
        assert_eq!(book.latest().unwrap().triangles, None);
    }
}
