//! Scrolling: the main pane by rows, pages and columns, and the text of an overlay that
//! scrolls, each within what the layout measures on the current screen (`layout`), so a key
//! moves by what the screen shows.

use super::app::{App, Overlay};
use super::keys::Action;
use super::layout::main_pane::{main_extent, main_hscroll};
use super::layout::{areas, overlay_scroll, page, vscroll};

impl App {
    /// Scrolls the main pane by `rows`, within its content.
    pub fn scroll_by(&mut self, rows: i64) {
        let width = areas(self).main.width.saturating_sub(2);
        let (anchor, _) = main_extent(self, width);
        let (now, most) = vscroll(self);
        let to = (now as i64).saturating_add(rows).clamp(0, most as i64);
        self.scroll = to - anchor as i64;
    }

    /// Scrolls the main pane by `pages` of the rows it shows at once (down when positive).
    pub fn scroll_pages(&mut self, pages: i64) {
        self.scroll_by(pages * page(self) as i64);
    }

    /// Scrolls long lines by half the width of their text, `direction` -1 (left) or 1 (right),
    /// within the longest line on screen.
    pub fn hscroll_by(&mut self, direction: i64) {
        let width = areas(self).main.width.saturating_sub(2);
        let (now, most, text_width) = main_hscroll(self, width);
        let step = (text_width / 2).max(4) as i64;
        let to = (now as i64 + direction * step).clamp(0, most as i64) as usize;
        self.hscroll = Some(to);
    }

    /// Scrolls the overlay in front when it is one that scrolls and `action` scrolls it (a
    /// line, a page, either end); true when it did, and the action is spent.
    pub(super) fn scroll_overlay(&mut self, action: Action) -> bool {
        let Some(to) = overlay_scroll(self).and_then(|s| s.after(action)) else {
            return false;
        };
        if let Some(scroll) = self.overlay.as_mut().and_then(Overlay::scroll_mut) {
            *scroll = to;
        }
        true
    }
}
