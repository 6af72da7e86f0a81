//! `--frames A..B`: an inclusive frame range.

/// Parses `A..B` (inclusive; `A..=B` is accepted too) with `A <= B`.
pub fn parse_range(text: &str) -> Result<(i32, i32), String> {
    let (a, b) = text.split_once("..").ok_or_else(|| {
        format!("'{text}' is not a frame range; write it as START..END, e.g. 1..50")
    })?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let parse = |s: &str| {
        s.trim()
            .parse::<i32>()
            .map_err(|_| format!("'{s}' in frame range '{text}' is not a frame number"))
    };
    let (a, b) = (parse(a)?, parse(b)?);
    if b < a {
        return Err(format!("frame range '{text}' ends before it starts"));
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::parse_range;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("1..50"), Ok((1, 50)));
        assert_eq!(parse_range("-3..=4"), Ok((-3, 4)));
        assert!(parse_range("5..1").is_err());
        assert!(parse_range("5").is_err());
        assert!(parse_range("a..3").is_err());
    }
}
