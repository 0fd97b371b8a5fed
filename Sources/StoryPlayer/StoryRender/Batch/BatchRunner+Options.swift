extension BatchRunner {
    /// Why render's `options` cannot be every row's, in words, for the first option that
    /// cannot; nil when they can. The batch sets a row's folder, quiet and frames itself
    /// (`ownOptions`), and a file an option names is written into each row's folder, so it is
    /// a name there, not a path out of it.
    public static func problem(withRowOptions options: [String]) -> String? {
        for (index, option) in options.enumerated() {
            let name = RenderInvocation.name(of: option)
            if ownOptions.contains(name) {
                return "\(name) is the batch's to set: each row renders into DIR/<row>/, quietly"
            }
            if RenderInvocation.fileOptions.contains(name) {
                let value = option.contains("=") ? String(option.split(separator: "=", maxSplits: 1)[1])
                    : index + 1 < options.count ? options[index + 1] : ""
                if value.hasPrefix("/") || value.contains("..") {
                    return "\(name) \(value): give a file name, which each row writes into its own folder"
                }
            }
        }
        return nil
    }
}
