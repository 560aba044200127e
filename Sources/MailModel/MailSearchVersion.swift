/// This build's version, for `--version`, the page's About and the API's settings.
public enum MailSearchVersion {
    public static let current = "0.9.0-dev"
}
