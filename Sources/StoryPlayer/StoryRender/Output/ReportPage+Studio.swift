extension ReportPage {
    /// The lifecycle lanes' script (`lanesScript`), for the studio's page, which draws the same
    /// lanes beside its player. It expects what the report's player script defines: `$`,
    /// `data` (`max_alive`, `max_audio`), `events`, `fps`, `lastFrame`, `state.frame`,
    /// `frameOf` and `goTo`.
    public static var lanesScriptForStudio: String { lanesScript }
}
