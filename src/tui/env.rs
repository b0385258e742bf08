//! The environment the reviewer depends on, read once at start into a value passed down.
//!
//! Colour support (`NO_COLOR`, `COLORTERM`) and the editor (`VISUAL`, `EDITOR`) are read here
//! and nowhere else, so a test builds an [`Env`] by hand instead of changing the process's
//! environment.

/// How many colours the terminal shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorDepth {
    /// `NO_COLOR` is set: meaning is carried by glyphs and text attributes only.
    None,
    /// The 256-colour palette.
    Indexed,
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    TrueColor,
}

/// What the reviewer reads from its environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Env {
    pub colors: ColorDepth,
    /// The editor command line for `e` (a shell command: `code --wait`, `vim`...).
    pub editor: String,
}

impl Env {
    /// Reads the process environment.
    pub fn from_process() -> Env {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Env::from_vars(
            var("NO_COLOR"),
            var("COLORTERM"),
            var("VISUAL"),
            var("EDITOR"),
        )
    }

    /// Decides from the variables' values: `NO_COLOR` set (non-empty) wins, then `COLORTERM`;
    /// `VISUAL` before `EDITOR`, falling back to `vi`.
    pub fn from_vars(
        no_color: Option<String>,
        colorterm: Option<String>,
        visual: Option<String>,
        editor: Option<String>,
    ) -> Env {
        let colors = if no_color.is_some() {
            ColorDepth::None
        } else if matches!(colorterm.as_deref(), Some("truecolor" | "24bit")) {
            ColorDepth::TrueColor
        } else {
            ColorDepth::Indexed
        };
        Env {
            colors,
            editor: visual.or(editor).unwrap_or_else(|| "vi".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_wins_and_visual_comes_before_editor() {
        let s = |v: &str| Some(v.to_owned());
        let env = Env::from_vars(s("1"), s("truecolor"), s("code -w"), s("nano"));
        assert_eq!(env.colors, ColorDepth::None);
        assert_eq!(env.editor, "code -w");
        let env = Env::from_vars(None, s("24bit"), None, s("nano"));
        assert_eq!(
            (env.colors, env.editor.as_str()),
            (ColorDepth::TrueColor, "nano")
        );
        let env = Env::from_vars(None, None, None, None);
        assert_eq!(
            (env.colors, env.editor.as_str()),
            (ColorDepth::Indexed, "vi")
        );
    }
}
