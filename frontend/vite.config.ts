import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// Built assets are served by Django (whitenoise) under /static/.
export default defineConfig({
  base: "/static/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
});
