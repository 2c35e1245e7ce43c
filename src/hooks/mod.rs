//! The app's hooks: the animation-frame loop, the global keyboard shortcuts and a sweep run in
//! a Web Worker. Each owns a handle whose drop cancels what it started (frame, listener,
//! worker) when the component unmounts.

pub mod use_animation_frame;
pub mod use_keyboard;
pub mod use_sweep_job;

pub use use_animation_frame::use_animation_frame;
pub use use_keyboard::{use_keyboard_shortcuts, Shortcuts};
pub use use_sweep_job::{use_sweep_job, SweepJobHandle, SweepRun};
