// The dashboard's only script: copy buttons for secrets shown once. Everything else is
// plain HTML forms, so the pages work without it.
"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = source.textContent.trim();
  try {
    await navigator.clipboard.writeText(text);
  } catch (error) {
    // No clipboard permission (an http page, say): select the text for Ctrl+C.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  button.textContent = "Copied";
  button.setAttribute("aria-live", "polite");
  setTimeout(() => { button.textContent = "Copy"; }, 2000);
});
