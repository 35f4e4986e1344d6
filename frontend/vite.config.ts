import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// Built assets are served by Django (whitenoise) under /static/.
export default defineConfig({
  base: "/static/",
  plugins: [react()],
  // The BPE tokenizer (cl100k_base, ~1 MB) is its own chunk, fetched only by the request walk.
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1100 },
});
