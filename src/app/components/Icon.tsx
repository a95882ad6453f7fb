/** Small inline SVG icons: media glyphs are missing from many system fonts (and CJK fonts). */
const PATHS = {
  start: 'M5 4h2v16H5zM20 4v16L9 12z',
  back: 'M19 4v16L8 12zM5 4h2v16H5z',
  play: 'M7 4v16l13-8z',
  pause: 'M6 4h4v16H6zM14 4h4v16h-4z',
  forward: 'M5 4v16l11-8zM17 4h2v16h-2z',
  end: 'M4 4v16l11-8zM17 4h2v16h-2z',
  reply: 'M10 8V4L3 11l7 7v-4c5 0 8.5 1.5 11 5-1-5-4-10-11-11z',
  plus: 'M11 5h2v14h-2zM5 11h14v2H5z',
  minus: 'M5 11h14v2H5z',
  fit: 'M4 4h6v2H6v4H4zM14 4h6v6h-2V6h-4zM4 14h2v4h4v2H4zM18 14h2v6h-6v-2h4z',
  link: 'M10.6 13.4a1 1 0 0 1 0-1.4l3.5-3.5a1 1 0 1 1 1.4 1.4L12 13.4a1 1 0 0 1-1.4 0zM8 17a3 3 0 0 1-2.1-5.1l2-2 1.4 1.4-2 2A1 1 0 0 0 8.7 15l2-2 1.4 1.4-2 2A3 3 0 0 1 8 17zm8-10a3 3 0 0 1 2.1 5.1l-2 2-1.4-1.4 2-2A1 1 0 0 0 15.3 9l-2 2-1.4-1.4 2-2A3 3 0 0 1 16 7z',
  sun: 'M12 7a5 5 0 1 1 0 10 5 5 0 0 1 0-10zM11 1h2v3h-2zM11 20h2v3h-2zM1 11h3v2H1zM20 11h3v2h-3zM4.2 2.8l2.1 2.1-1.4 1.4-2.1-2.1zM19.1 17.7l2.1 2.1-1.4 1.4-2.1-2.1zM2.8 19.8l2.1-2.1 1.4 1.4-2.1 2.1zM17.7 4.9l2.1-2.1 1.4 1.4-2.1 2.1z',
  moon: 'M14.5 2a9 9 0 1 0 7.5 13.9A8 8 0 0 1 14.5 2z',
  check: 'M9 16.2 4.8 12l-1.4 1.4L9 19 21 7l-1.4-1.4z',
  follow: 'M12 8a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM11 1h2v4h-2zM11 19h2v4h-2zM1 11h4v2H1zM19 11h4v2h-4z',
  table: 'M3 4h18v16H3zm2 2v3h14V6zm0 5v3h6v-3zm8 0v3h6v-3zm-8 5v2h6v-2zm8 0v2h6v-2z',
  legend: 'M4 5h3v3H4zM9 5.5h11v2H9zM4 10.5h3v3H4zM9 11h11v2H9zM4 16h3v3H4zM9 16.5h11v2H9z',
  code: 'M8.6 16.6 4 12l4.6-4.6L10 8.8 6.8 12l3.2 3.2zm6.8 0L20 12l-4.6-4.6L14 8.8l3.2 3.2-3.2 3.2z',
  sidebar: 'M3 4h18v16H3zm2 2v12h4V6zm6 0v12h8V6z',
  info: 'M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16zm-1 6h2v7h-2zm0-4h2v2h-2z',
  download: 'M11 3h2v9.2l3.3-3.3 1.4 1.4-5.7 5.7-5.7-5.7 1.4-1.4 3.3 3.3zM4 18h16v2H4z',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16 }: { name: IconName; size?: number }) {
  return (
    <svg
      className="icon-svg"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} fill="currentColor" />
    </svg>
  );
}
