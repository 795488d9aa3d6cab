//! Markdown output: tables, number formats, and the document a subcommand prints (a
//! title, the lines that say where and how it was measured, then tables and notes).

use std::fmt::Write as _;

/// How a column's cells are aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A markdown table.
#[derive(Clone, Debug, Default)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with no columns yet.
    pub fn new() -> Table {
        Table::default()
    }

    /// Adds a left-aligned column (names, verdicts).
    pub fn left(mut self, name: impl Into<String>) -> Table {
        self.columns.push((name.into(), Align::Left));
        self
    }

    /// Adds a right-aligned column (numbers).
    pub fn right(mut self, name: impl Into<String>) -> Table {
        self.columns.push((name.into(), Align::Right));
        self
    }

    /// Adds a row; missing cells are shown as `-`, extra cells are dropped.
    pub fn push(&mut self, mut cells: Vec<String>) {
        cells.resize(self.columns.len(), "-".to_string());
        self.rows.push(cells);
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as markdown: a header row, the alignment row, one line per row.
    pub fn render(&self) -> String {
        let line = |cells: &mut dyn Iterator<Item = String>| {
            let cells: Vec<String> = cells.collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut out = line(&mut self.columns.iter().map(|(n, _)| escape(n)));
        out.push('|');
        for (_, align) in &self.columns {
            out.push_str(if *align == Align::Right { "---:|" } else { "---|" });
        }
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(&mut row.iter().map(|c| escape(c))));
        }
        out
    }
}

/// A cell's text with the characters that would break a table row escaped.
fn escape(cell: &str) -> String {
    cell.replace('|', "\\|").replace('\n', " ")
}

/// `n` with thousands separators: 7,609,684.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `x` with `decimals` decimals, or `-` for none.
pub fn fixed(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(|| "-".to_string(), |x| format!("{x:.decimals$}"))
}

/// A ratio as `1.23x`, or `-` for none.
pub fn times(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |x| format!("{x:.2}x"))
}

/// One part of a document.
#[derive(Clone, Debug)]
pub enum Block {
    /// A paragraph or a list, printed as is.
    Text(String),
    Table(Table),
}

/// What a subcommand prints: a title, the lines that say where, when and how, then
/// tables and notes.
#[derive(Clone, Debug)]
pub struct Document {
    pub title: String,
    /// Lines of the header list (date, machine, commit, command, ...).
    pub meta: Vec<String>,
    pub blocks: Vec<Block>,
}

impl Document {
    /// A document with a title and no content yet.
    pub fn new(title: impl Into<String>) -> Document {
        Document { title: title.into(), meta: Vec::new(), blocks: Vec::new() }
    }

    /// Adds a paragraph.
    pub fn text(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Text(text.into()));
    }

    /// Adds a table.
    pub fn table(&mut self, table: Table) {
        self.blocks.push(Block::Table(table));
    }

    /// The document as markdown.
    pub fn render(&self) -> String {
        let mut out = format!("## {}\n\n", self.title);
        for line in &self.meta {
            let _ = writeln!(out, "- {line}");
        }
        for block in &self.blocks {
            out.push('\n');
            match block {
                Block::Text(text) => {
                    out.push_str(text.trim_end());
                    out.push('\n');
                }
                Block::Table(table) => out.push_str(&table.render()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_layout() {
        let mut t = Table::new().left("instance").right("states").right("seconds");
        t.push(vec!["adding.6".into(), thousands(7609684), fixed(Some(2.0461), 2)]);
        t.push(vec!["a|b".into(), "1".into()]);
        assert!(!t.is_empty());
        assert_eq!(
            t.render(),
            "| instance | states | seconds |\n|---|---:|---:|\n| adding.6 | 7,609,684 | 2.05 |\n| a\\|b | 1 | - |\n"
        );
    }

    #[test]
    fn number_formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(131777303), "131,777,303");
        assert_eq!(fixed(None, 2), "-");
        assert_eq!(fixed(Some(1.0 / 3.0), 3), "0.333");
        assert_eq!(times(Some(2.0)), "2.00x");
    }

    #[test]
    fn document_layout() {
        let mut d = Document::new("Title");
        d.meta.push("Date: 2026-01-02 (UTC)".into());
        d.meta.push("Command: `x`".into());
        let mut t = Table::new().left("a");
        t.push(vec!["1".into()]);
        d.table(t);
        d.text("Note.\n");
        assert_eq!(
            d.render(),
            "## Title\n\n- Date: 2026-01-02 (UTC)\n- Command: `x`\n\n| a |\n|---|\n| 1 |\n\nNote.\n"
        );
    }
}
