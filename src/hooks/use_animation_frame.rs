//! `requestAnimationFrame` as a hook: calls the latest `on_frame(timestamp_ms)` every frame
//! while the component is mounted.

use gloo::render::{request_animation_frame, AnimationFrame};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

type OnFrame = Rc<RefCell<Rc<dyn Fn(f64)>>>;

/// A running frame loop; dropping it cancels the pending frame and stops the loop.
pub struct FrameLoop {
    pending: Rc<RefCell<Option<AnimationFrame>>>,
    alive: Rc<Cell<bool>>,
}

impl FrameLoop {
    pub fn start(on_frame: OnFrame) -> Self {
        let pending = Rc::new(RefCell::new(None));
        let alive = Rc::new(Cell::new(true));
        schedule(pending.clone(), alive.clone(), on_frame);
        FrameLoop { pending, alive }
    }
}

fn schedule(pending: Rc<RefCell<Option<AnimationFrame>>>, alive: Rc<Cell<bool>>, f: OnFrame) {
    let slot = pending.clone();
    let frame = request_animation_frame(move |ts| {
        if !alive.get() {
            return;
        }
        let on_frame = f.borrow().clone();
        on_frame(ts);
        schedule(pending, alive, f);
    });
    *slot.borrow_mut() = Some(frame);
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        self.alive.set(false);
        self.pending.borrow_mut().take();
    }
}

/// Runs `on_frame` on every animation frame from the first render until unmount; each render
/// replaces the closure (so it sees that render's values) without restarting the loop.
#[hook]
pub fn use_animation_frame<F>(on_frame: F)
where
    F: Fn(f64) + 'static,
{
    let latest: OnFrame = {
        let cell = use_mut_ref(|| Rc::new(|_: f64| {}) as Rc<dyn Fn(f64)>);
        *cell.borrow_mut() = Rc::new(on_frame);
        cell
    };
    use_effect_with((), move |_| {
        let frames = FrameLoop::start(latest);
        move || drop(frames)
    });
}
