use crate::url::Theme;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub theme: Theme,
    pub dark: bool,
    pub on_theme: Callback<Theme>,
    /// The current query (whole state), for "copy link" and "copy embed".
    pub query: AttrValue,
}

fn page_base() -> String {
    web_sys::window()
        .map(|w| {
            let l = w.location();
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// The one-snippet embed of the current state.
pub fn embed_snippet(base: &str, query: &str, view: &str) -> String {
    format!(
        "<iframe src=\"{base}{query}&amp;embed=1&amp;view={view}\" title=\"sisviz: select_idle_sibling()\" width=\"100%\" height=\"560\" style=\"border:0\" loading=\"lazy\"></iframe>"
    )
}

#[component]
pub fn Header(p: &HeaderProps) -> Html {
    let next = if p.dark { Theme::Light } else { Theme::Dark };
    let on_theme = p.on_theme.clone();
    let onclick = Callback::from(move |_| on_theme.emit(next));
    let copied = use_state(|| "");
    let copy_link = {
        let (q, copied) = (p.query.clone(), copied.clone());
        Callback::from(move |_: MouseEvent| {
            copy(&format!("{}{}", page_base(), q));
            copied.set("link copied");
        })
    };
    let copy_embed = {
        let (q, copied) = (p.query.clone(), copied.clone());
        Callback::from(move |_: MouseEvent| {
            copy(&embed_snippet(&page_base(), &q, "full"));
            copied.set("embed snippet copied");
        })
    };
    html! {
        <header class="top">
            <div class="title">
                <h1><code>{"select_idle_sibling()"}</code>{" visualised"}</h1>
                <p class="lede">
                    {"When a task wakes up, the Linux scheduler looks for an idle CPU near the waker. "}
                    {"Scanning the last-level cache costs time per CPU probed, so the scan is throttled: "}
                    <b>{"SIS_PROP"}</b>{" by the waker's idle time, "}<b>{"SIS_UTIL"}</b>
                    {" by how busy the LLC is. Press play, then step through one decision."}
                </p>
            </div>
            <div class="top-actions">
                <span class="hint" aria-live="polite">{*copied}</span>
                <button class="ghost" onclick={copy_link} title="Copy a link to exactly this state">{"Copy link"}</button>
                <button class="ghost" onclick={copy_embed}
                    title="Copy an <iframe> snippet that embeds this state (embed=1; set view=curve|cpus|trace|full)">{"Copy embed"}</button>
                <button class="ghost" onclick={onclick} data-testid="theme-toggle"
                    title={format!("Switch to the {} theme (now: {})", next.name(), p.theme.name())}>
                    { if p.dark { "☀ Light" } else { "☾ Dark" } }
                </button>
            </div>
        </header>
    }
}
