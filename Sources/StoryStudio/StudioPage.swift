import StoryPlayer

/// The page: one self-contained HTML file (`Page/studio.html`, embedded in the binary), with
/// the report page's lifecycle lanes script put in, so the lanes look and behave as the
/// report's do.
enum StudioPage {
    static let placeholder = "/*LANES_SCRIPT*/"

    static let html: String = {
        let page = String(decoding: PackageResources.studio_html, as: UTF8.self)
        return page.replacingOccurrences(of: placeholder, with: ReportPage.lanesScriptForStudio)
    }()
}
