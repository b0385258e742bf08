//! The reviewer's measuring: where each part of the screen is, and what the parts that scroll
//! show and how far they go, as functions of the state alone.
//!
//! Both sides ask it: a key that pages, scrolls or clicks (the update, the mouse) and the frame
//! that draws (`draw`), so a key moves by what the screen shows. Laying a part out means
//! building the lines it measures (the main pane's head, an overlay's text), so those are built
//! here too and drawn from here. Nothing here changes state or draws.
//!
//! - [`screen`]: the areas of the screen, the main pane's page, which rows of a list show.
//! - [`head`] and [`main_pane`]: the main pane's content, where it starts, how far it scrolls.
//! - [`panel`] and [`overlays`]: the overlays that scroll, as boxes, and their scrolling.

pub mod head;
pub mod main_pane;
pub mod overlays;
pub mod panel;
pub mod screen;

pub use main_pane::vscroll;
pub use overlays::{overlay_scroll, Scroll};
pub use screen::{areas, list_window, page, Areas, COMPACT_WIDTH};
