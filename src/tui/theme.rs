//! Themes: the reviewer's palette of semantic styles, loaded from `themes/` or a user file.
//!
//! A theme file names styles by meaning (accepted, rejected, conflict, selection, added,
//! removed, emphasis...) and the syntect theme used for syntax colours. The bundled themes are
//! compiled in; `--theme PATH` reads a file that may set only some names over a base theme. The
//! colours are mapped once to what the terminal shows: truecolor, the 256-colour palette, or,
//! under `NO_COLOR`, no colour at all but text attributes that keep every meaning visible.

use super::env::ColorDepth;
use ratatui::style::{Color, Modifier, Style};
use std::collections::BTreeMap;

/// The bundled themes, by name.
pub const BUNDLED: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// Defines the palette's styles and the list of their names together, so that a style is
/// one field (a typo in drawing code does not compile) and one name in a theme file.
macro_rules! styles {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// The styles of a palette, one per meaning.
        #[derive(Clone, Debug, Default)]
        pub struct Styles {
            $($(#[$doc])* pub $name: Style,)*
        }

        /// The semantic names a theme sets, besides `syntax` and `base`.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];

        impl Styles {
            /// Each style from its entry of a theme, for the terminal's colour depth.
            fn build(
                theme: &str,
                entries: &BTreeMap<String, String>,
                depth: ColorDepth,
            ) -> Result<Styles, String> {
                Ok(Styles {
                    $($name: {
                        let key = stringify!($name);
                        let spec = entries.get(key).map_or("", String::as_str);
                        let style = parse_style(spec, depth)
                            .map_err(|e| format!("theme {theme}: {key}: {e}"))?;
                        adapt(key, style, depth)
                    },)*
                })
            }
        }
    };
}

styles! {
    text,
    dim,
    border,
    title,
    header,
    key,
    accepted,
    rejected,
    edited,
    undecided,
    conflict,
    warning,
    selection,
    added,
    removed,
    added_emphasis,
    removed_emphasis,
    line_number,
    search_match,
    differs,
}

/// Styles ready to draw with: `palette.conflict`, by meaning.
#[derive(Clone, Debug)]
pub struct Palette {
    pub name: String,
    /// The syntect theme for syntax colours (none under `NO_COLOR`).
    pub syntax: Option<String>,
    styles: Styles,
    pub depth: ColorDepth,
}

impl std::ops::Deref for Palette {
    type Target = Styles;
    fn deref(&self) -> &Styles {
        &self.styles
    }
}

impl Palette {
    /// Maps an RGB colour (from syntect) to what the terminal shows.
    pub fn rgb(&self, r: u8, g: u8, b: u8) -> Option<Color> {
        map_color(Color::Rgb(r, g, b), self.depth)
    }

    /// Loads a theme by bundled name or file path.
    pub fn load(spec: &str, depth: ColorDepth) -> Result<Palette, String> {
        if let Some((_, text)) = BUNDLED.iter().find(|(name, _)| *name == spec) {
            return Palette::build(spec, &parse(text, spec)?, depth);
        }
        let text =
            crate::bounded::read_to_string(std::path::Path::new(spec), crate::bounded::SMALL_FILE)
                .map_err(|e| {
                    let names: Vec<&str> = BUNDLED.iter().map(|(n, _)| *n).collect();
                    format!(
                "\"{spec}\" is neither a bundled theme ({}) nor a readable theme file ({e})",
                names.join(", ")
            )
                })?;
        let user = parse(&text, spec)?;
        let base_name = user.get("base").map_or("dark", String::as_str);
        let (_, base_text) = BUNDLED
            .iter()
            .find(|(name, _)| *name == base_name)
            .ok_or_else(|| format!("{spec}: base \"{base_name}\" is not a bundled theme"))?;
        let mut merged = parse(base_text, base_name)?;
        merged.extend(user);
        Palette::build(spec, &merged, depth)
    }

    fn build(
        name: &str,
        entries: &BTreeMap<String, String>,
        depth: ColorDepth,
    ) -> Result<Palette, String> {
        Ok(Palette {
            name: name.to_owned(),
            syntax: (depth != ColorDepth::None)
                .then(|| entries.get("syntax").cloned())
                .flatten(),
            styles: Styles::build(name, entries, depth)?,
            depth,
        })
    }
}

/// A style for the terminal's colour depth. Without colour, the names that carry meaning only
/// by colour get attributes instead.
fn adapt(name: &str, style: Style, depth: ColorDepth) -> Style {
    if depth != ColorDepth::None {
        return Style {
            fg: style.fg.and_then(|c| map_color(c, depth)),
            bg: style.bg.and_then(|c| map_color(c, depth)),
            ..style
        };
    }
    let plain = Style {
        fg: None,
        bg: None,
        ..style
    };
    let extra = match name {
        "selection" | "search_match" | "header" => Modifier::REVERSED,
        "conflict" | "differs" => Modifier::REVERSED | Modifier::BOLD,
        "added_emphasis" | "removed_emphasis" => Modifier::UNDERLINED | Modifier::BOLD,
        "dim" | "line_number" | "border" => Modifier::DIM,
        _ => Modifier::empty(),
    };
    plain.add_modifier(extra)
}

fn map_color(color: Color, depth: ColorDepth) -> Option<Color> {
    match (depth, color) {
        (ColorDepth::None, _) => None,
        (ColorDepth::Indexed, Color::Rgb(r, g, b)) => Some(Color::Indexed(to_ansi256(r, g, b))),
        (_, c) => Some(c),
    }
}

/// The xterm 256-colour palette's colour for an RGB colour: the nearest of its 6x6x6 cube or
/// grey ramp, except that a clearly coloured one keeps its hue. Dark tints are nearer to a grey
/// than to any cube colour, so by distance alone a green and a red background both become the
/// same grey; they become the nearest cube colours of their own hue instead.
pub fn to_ansi256(r: u8, g: u8, b: u8) -> u8 {
    let nearest = nearest_ansi256(r, g, b);
    let Some(hue) = clear_hue(r, g, b) else {
        return nearest;
    };
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let dist = |(x, y, z): (u8, u8, u8)| {
        let d = |a: u8, b: u8| (a as i32 - b as i32).pow(2);
        d(x, r) + d(y, g) + d(z, b)
    };
    // The cube's 216 colours, by index, with their hue.
    let cube = (0..216u8).filter_map(|i| {
        let rgb = (
            LEVELS[i as usize / 36],
            LEVELS[i as usize / 6 % 6],
            LEVELS[i as usize % 6],
        );
        hue_of(rgb.0, rgb.1, rgb.2).map(|h| (16 + i, rgb, h))
    });
    cube.filter(|&(_, _, cube_hue)| {
        let apart = (cube_hue - hue).abs();
        apart.min(360.0 - apart) <= 30.0
    })
    .min_by_key(|&(_, rgb, _)| dist(rgb))
    .map_or(nearest, |(index, _, _)| index)
}

/// The hue (degrees) of a colour with any colour at all.
fn hue_of(r: u8, g: u8, b: u8) -> Option<f32> {
    let (r, g, b) = (r as f32, g as f32, b as f32);
    let max = r.max(g).max(b);
    let chroma = max - r.min(g).min(b);
    if chroma == 0.0 {
        return None;
    }
    let hue = if max == r {
        60.0 * ((g - b) / chroma)
    } else if max == g {
        60.0 * ((b - r) / chroma + 2.0)
    } else {
        60.0 * ((r - g) / chroma + 4.0)
    };
    Some(hue.rem_euclid(360.0))
}

/// The hue of a clearly coloured colour: one whose colour is a good part of its brightness.
/// Greyish colours (a bluish grey border, a dark selection) are left to the nearest match.
fn clear_hue(r: u8, g: u8, b: u8) -> Option<f32> {
    let max = r.max(g).max(b);
    let chroma = max - r.min(g).min(b);
    (chroma >= 24 && chroma as f32 >= 0.3 * max as f32)
        .then(|| hue_of(r, g, b))
        .flatten()
}

/// The nearest colour of the xterm 256-colour palette (its 6x6x6 cube or grey ramp).
fn nearest_ansi256(r: u8, g: u8, b: u8) -> u8 {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let level = |v: u8| {
        (0..6)
            .min_by_key(|&i| (LEVELS[i] as i32 - v as i32).abs())
            .expect("six levels")
    };
    let (ri, gi, bi) = (level(r), level(g), level(b));
    let cube = (LEVELS[ri], LEVELS[gi], LEVELS[bi]);
    let grey_index = ((r as u32 + g as u32 + b as u32) / 3).saturating_sub(8) / 10;
    let grey_index = grey_index.min(23) as u8;
    let grey = 8 + grey_index * 10;
    let dist = |(x, y, z): (u8, u8, u8)| {
        let d = |a: u8, b: u8| (a as i32 - b as i32).pow(2);
        d(x, r) + d(y, g) + d(z, b)
    };
    if dist((grey, grey, grey)) < dist(cube) {
        232 + grey_index
    } else {
        16 + 36 * ri as u8 + 6 * gi as u8 + bi as u8
    }
}

/// Reads `name = "value"` lines; `#` starts a comment line.
fn parse(text: &str, source: &str) -> Result<BTreeMap<String, String>, String> {
    let mut entries = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{source}:{}", i + 1);
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| format!("{}: expected name = \"value\"", at()))?;
        let name = name.trim();
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or_else(|| format!("{}: the value of {name} must be in double quotes", at()))?;
        if name != "syntax" && name != "base" && !NAMES.contains(&name) {
            return Err(format!(
                "{}: unknown name \"{name}\"; a theme sets syntax, base, {}",
                at(),
                NAMES.join(", ")
            ));
        }
        entries.insert(name.to_owned(), value.to_owned());
    }
    Ok(entries)
}

/// Reads a style; a colour written `#rrggbb/NNN` is the 256-colour palette's index NNN on a
/// terminal without truecolor.
fn parse_style(spec: &str, depth: ColorDepth) -> Result<Style, String> {
    let mut style = Style::default();
    let mut words = spec.split_whitespace();
    while let Some(word) = words.next() {
        style = match word {
            "bold" => style.add_modifier(Modifier::BOLD),
            "dim" => style.add_modifier(Modifier::DIM),
            "italic" => style.add_modifier(Modifier::ITALIC),
            "underline" => style.add_modifier(Modifier::UNDERLINED),
            "reversed" => style.add_modifier(Modifier::REVERSED),
            "on" => {
                let color = words.next().ok_or("\"on\" needs a colour")?;
                style.bg(parse_color(color, depth)?)
            }
            color => style.fg(parse_color(color, depth)?),
        };
    }
    Ok(style)
}

fn parse_color(word: &str, depth: ColorDepth) -> Result<Color, String> {
    if let Some((rgb, index)) = word.split_once('/') {
        let color = parse_color(rgb, depth)?;
        let index: u8 = index
            .parse()
            .map_err(|_| format!("\"{word}\": after / comes a 256-colour index, 0 to 255"))?;
        return Ok(if depth == ColorDepth::Indexed {
            Color::Indexed(index)
        } else {
            color
        });
    }
    if let Some(hex) = word.strip_prefix('#') {
        if hex.len() == 6 {
            if let Ok(v) = u32::from_str_radix(hex, 16) {
                return Ok(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
            }
        }
        return Err(format!("\"{word}\" is not a #rrggbb colour"));
    }
    word.parse::<Color>()
        .map_err(|_| format!("\"{word}\" is not a colour, attribute or \"on\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_theme_sets_every_name() {
        for (name, text) in BUNDLED {
            let entries = parse(text, name).unwrap();
            for key in NAMES {
                assert!(entries.contains_key(*key), "{name} lacks {key}");
            }
            assert!(entries.contains_key("syntax"));
            Palette::load(name, ColorDepth::TrueColor).unwrap();
        }
    }

    #[test]
    fn a_user_file_overrides_some_names_over_its_base() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.toml");
        std::fs::write(&path, "base = \"light\"\nconflict = \"#ff00ff bold\"\n").unwrap();
        let palette = Palette::load(path.to_str().unwrap(), ColorDepth::TrueColor).unwrap();
        assert_eq!(palette.conflict.fg, Some(Color::Rgb(255, 0, 255)));
        assert_eq!(palette.accepted.fg, Some(Color::Rgb(0x22, 0x86, 0x3a)));
        std::fs::write(&path, "conflit = \"red\"\n").unwrap();
        let error = Palette::load(path.to_str().unwrap(), ColorDepth::TrueColor).unwrap_err();
        assert!(error.contains("unknown name \"conflit\""), "{error}");
    }

    #[test]
    fn colours_follow_the_terminal_depth() {
        let indexed = Palette::load("dark", ColorDepth::Indexed).unwrap();
        assert!(matches!(indexed.accepted.fg, Some(Color::Indexed(_))));
        let mono = Palette::load("dark", ColorDepth::None).unwrap();
        assert_eq!(mono.conflict.fg, None);
        assert!(mono.conflict.add_modifier.contains(Modifier::REVERSED));
        assert!(mono.syntax.is_none());
        assert_eq!(to_ansi256(255, 0, 0), 196);
        assert_eq!(to_ansi256(0x30, 0x30, 0x30), 236);
        // A dark green and a dark red stay green and red (both are nearest to grey 235).
        assert_eq!(to_ansi256(0x1e, 0x3a, 0x24), 22);
        assert_eq!(to_ansi256(0x3f, 0x1e, 0x22), 52);
        // A bluish grey stays grey.
        assert_eq!(to_ansi256(0x3b, 0x44, 0x52), 238);
    }

    #[test]
    fn a_theme_may_name_the_256_colour_index_of_a_colour() {
        let style = parse_style("on #e6ffed/194", ColorDepth::Indexed).unwrap();
        assert_eq!(style.bg, Some(Color::Indexed(194)));
        let style = parse_style("on #e6ffed/194", ColorDepth::TrueColor).unwrap();
        assert_eq!(style.bg, Some(Color::Rgb(0xe6, 0xff, 0xed)));
        assert!(parse_style("#e6ffed/256", ColorDepth::Indexed).is_err());
    }

    #[test]
    fn added_removed_and_selection_stay_apart_in_256_colours() {
        let look = |style: Style| (style.fg, style.bg);
        for (name, _) in BUNDLED {
            let p = Palette::load(name, ColorDepth::Indexed).unwrap();
            let styles = [
                ("added", p.added),
                ("removed", p.removed),
                ("added_emphasis", p.added_emphasis),
                ("removed_emphasis", p.removed_emphasis),
                ("selection", p.selection),
            ];
            for (i, (a, first)) in styles.iter().enumerate() {
                for (b, second) in &styles[i + 1..] {
                    assert_ne!(
                        look(*first),
                        look(*second),
                        "theme {name}: {a} and {b} look the same on a 256-colour terminal"
                    );
                }
            }
        }
    }
}
