/// A small local list of hosts whose images are open-tracking pixels (or analytics beacons).
/// An image from one of these hosts, or any subdomain of one, is stripped even when the reader
/// allows remote images. Heuristic, not exhaustive: most senders track through their own domains,
/// which the size and visibility rules catch instead.
enum TrackerDomains {
    static let hosts: Set<String> = [
        // Ad and analytics beacons.
        "doubleclick.net", "google-analytics.com", "googletagmanager.com", "googleadservices.com",
        "googlesyndication.com", "bat.bing.com", "analytics.twitter.com", "px.ads.linkedin.com",
        "pixel.facebook.com", "pixel.wp.com", "stats.wp.com", "api.mixpanel.com", "api.segment.io",
        "pixel.quantserve.com", "sb.scorecardresearch.com",
        // Email service providers' open pixels.
        "list-manage.com", "ct.sendgrid.net", "mandrillapp.com", "exct.net", "pi.pardot.com",
        "track.hubspot.com", "t.hubspotemail.net", "trk.klclick.com", "clicks.mlsend.com",
        "emltrk.com", "mailstat.us",
        // Per-person "read receipt" trackers.
        "mailtrack.io", "mailfoogae.appspot.com", "t.yesware.com", "app.yesware.com", "bl-1.com",
        "contactmonkey.com", "getnotify.com", "r.superhuman.com", "track.mixmax.com",
        "tracking.cirrusinsight.com",
    ]

    /// True when `host` (lower-cased) is a listed host or a subdomain of one.
    static func contains(host: String) -> Bool {
        var candidate = Substring(host)
        while true {
            if hosts.contains(String(candidate)) { return true }
            guard let dot = candidate.firstIndex(of: ".") else { return false }
            candidate = candidate[candidate.index(after: dot)...]
        }
    }
}
